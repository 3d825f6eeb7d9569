"""What runs programs and holds their values: `Array` and its buffers, devices, shardings,
streams, SPMD execution, transfer guards, the multi-process runtime. Imports only `core`."""
