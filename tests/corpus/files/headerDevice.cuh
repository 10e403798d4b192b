#pragma once

// Twin of headerDeviceRace.cuh: a barrier between the read of the neighbour's cell and
// the write of its own.
__device__ void Comparator(int *s, int t)
{
    int right = s[(t + 1) % 64];
    int own = s[t];
    __syncthreads();
    s[t] = right < own ? right : own;
}
