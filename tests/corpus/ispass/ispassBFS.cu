//pass
//--blockDim=512 --gridDim=128
//expect: race
//note: two frontier nodes may share a neighbour; both threads write its cost and
//      mask flags with plain stores. The mask flags all store `true`: a benign race
//      (not reported, as GPUVerify); the costs are a real race (a read of `g_cost` too).

typedef struct {
    int starting;
    int no_of_edges;
} Node;

// One BFS level: every frontier node relaxes its neighbours.
__global__ void Kernel(Node *g_graph_nodes, int *g_graph_edges, bool *g_graph_mask, bool *g_updating_graph_mask,
                       bool *g_graph_visited, int *g_cost, int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid] = false;
        for (int i = g_graph_nodes[tid].starting; i < (g_graph_nodes[tid].no_of_edges + g_graph_nodes[tid].starting); i++) {
            int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                g_cost[id] = g_cost[tid] + 1; //~ race(g_cost)
                g_updating_graph_mask[id] = true;
            }
        }
    }
}
