//pass
//--blockDim=512 --gridDim=128
//expect: verified

// Second BFS phase: promote the updated nodes to the next frontier.
__global__ void Kernel2(bool *g_graph_mask, bool *g_updating_graph_mask, bool *g_graph_visited, bool *g_over, int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
        g_graph_mask[tid] = true;
        g_graph_visited[tid] = true;
        atomicExch((int *)g_over, 1);
        g_updating_graph_mask[tid] = false;
    }
}
