#pragma once

// A device function of the project's header that headerDeviceRace.cu calls: it reads
// the neighbour's cell and writes its own with no barrier between.
__device__ void Comparator(int *s, int t)
{
    int right = s[(t + 1) % 64];
    s[t] = right < s[t] ? right : s[t];
}
