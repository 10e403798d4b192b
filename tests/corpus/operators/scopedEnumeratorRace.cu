//expect: race

// `Shape::N` is the struct's `short` constant 64 (not a constant autosync keeps: a
// narrow type), never the unrelated enumerator `N` of another enum: thread t writes
// `s[(t * 64) % 64]`, so all threads write `s[0]`.
enum Other { N = 1 };
struct Shape { static const short N = 64; };

__global__ void fold(float *s)
{
    s[(threadIdx.x * Shape::N) % 64] = threadIdx.x;      //~ race(s)
}

void run(float *o) { fold<<<1, 64>>>(o); }
