"""interpreters"""
