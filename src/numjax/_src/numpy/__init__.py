"""numpy"""
