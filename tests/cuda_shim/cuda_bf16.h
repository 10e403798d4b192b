// The bfloat16 type of cuda_bf16.h, as far as the corpus uses it: 2 bytes, converted
// to and from float.
#pragma once
struct __nv_bfloat16 {
    unsigned short bits;
    __nv_bfloat16() = default;
    __nv_bfloat16(float);
    operator float() const;
};
typedef __nv_bfloat16 nv_bfloat16;
float __bfloat162float(__nv_bfloat16);
__nv_bfloat16 __float2bfloat16(float);
