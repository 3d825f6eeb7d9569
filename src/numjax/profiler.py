"""numjax.profiler: trace the program's Python and NumPy calls and the user's annotations to a
timeline file TensorBoard and Perfetto open (JAX's `jax.profiler`)."""

from numjax._src.profiler import StepTraceAnnotation as StepTraceAnnotation
from numjax._src.profiler import TraceAnnotation as TraceAnnotation
from numjax._src.profiler import annotate_function as annotate_function
from numjax._src.profiler import device_memory_profile as device_memory_profile
from numjax._src.profiler import save_device_memory_profile as save_device_memory_profile
from numjax._src.profiler import start_server as start_server
from numjax._src.profiler import start_trace as start_trace
from numjax._src.profiler import stop_server as stop_server
from numjax._src.profiler import stop_trace as stop_trace
from numjax._src.profiler import trace as trace
