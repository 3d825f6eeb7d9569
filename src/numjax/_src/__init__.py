"""Private implementation of numjax; the public API lives one level up.

Importing any part of it installs eager execution (the runtime's executor of primitives on
concrete values), so module-level code anywhere may run operations.
"""

from numjax._src.compiler import eager as _eager
