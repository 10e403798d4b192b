__global__ void k(int *a) {
    if (a[0]) // café
        a[1] = 1;
}
