__global__ void k(float *a) {
  __shared__ float s[1099511627776][1099511627776];
  s[threadIdx.x][0] = a[0];
}
