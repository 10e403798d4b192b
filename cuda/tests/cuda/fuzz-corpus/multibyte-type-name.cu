__global__ void k(int *a) {
    if (a[0]) { é x; }
}
