"""numjax.errors: JAX's error classes."""

from numjax._src.core.errors import ConcretizationTypeError as ConcretizationTypeError
from numjax._src.core.errors import JAXIndexError as JAXIndexError
from numjax._src.core.errors import JAXTypeError as JAXTypeError
from numjax._src.core.errors import KeyReuseError as KeyReuseError
from numjax._src.core.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
from numjax._src.core.errors import TracerArrayConversionError as TracerArrayConversionError
from numjax._src.core.errors import TracerBoolConversionError as TracerBoolConversionError
from numjax._src.core.errors import TracerIntegerConversionError as TracerIntegerConversionError
from numjax._src.core.errors import UnexpectedTracerError as UnexpectedTracerError
from numjax._src.traceback_util import SimplifiedTraceback as SimplifiedTraceback
