// A stand-in for the DLA runtime header of Jetson boards: on the build machine, not on
// the analysis machine (tests/corpus/files/missingHeader*.cu).
#pragma once
typedef void *cudlaDevHandle;
typedef int cudlaStatus;
cudlaStatus cudlaCreateDevice(unsigned long long, cudlaDevHandle *, unsigned int);
#define cudlaSuccess 0
