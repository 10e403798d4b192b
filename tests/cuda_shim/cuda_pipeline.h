// Empty: tests/cuda_shim.h (included first with -include) declares what this header would.
#pragma once
