/* The blocks of a function's code outside its loops costed together, and a loop's block that
 * calls a small leaf function costed with the callee's body; see blockgroup.h. */
#include "blockgroup.h"

void ms_block_group_scale(size_t n, const uint64_t *func, const unsigned char *in_loop, const double *count,
                          const float *res, double *cyc)
{
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && func[hi] == func[lo];) hi++;
        if (!func[lo]) continue;
        double sum[MS_MCA_RES] = { 0 }, s = 0, t = 0;
        for (size_t b = lo; b < hi; b++) {
            if (in_loop[b] || count[b] <= 0) continue;
            s += count[b] * cyc[b];
            for (int r = 0; r < MS_MCA_RES; r++) sum[r] += count[b] * (double)res[b * MS_MCA_RES + r];
        }
        for (int r = 0; r < MS_MCA_RES; r++)
            if (sum[r] > t) t = sum[r];
        if (s <= 0 || t <= 0 || t >= s) continue;
        for (size_t b = lo; b < hi; b++)
            if (!in_loop[b]) cyc[b] *= t / s;
    }
}

void ms_block_call_overlap(size_t n, const uint64_t *func, const unsigned char *in_loop, const uint64_t *callee,
                           const double *count, const float *res, double *cyc)
{
    for (size_t b = 0; b < n; b++) {
        if (!in_loop[b] || !callee[b] || count[b] <= 0) continue;
        double calls = 0, calling = 0, time = 0, use[MS_MCA_RES] = { 0 };
        int leaf = 1;
        for (size_t k = 0; k < n && leaf; k++) {
            if (func[k] != callee[b] || count[k] <= 0) continue;
            leaf = !in_loop[k];
            if (callee[k]) calling += count[k];
            if (count[k] > calls) calls = count[k];
            time += count[k] * cyc[k];
            for (int r = 0; r < MS_MCA_RES; r++) use[r] += count[k] * (double)res[k * MS_MCA_RES + r];
        }
        if (!leaf || calls <= 0 || calling > calls / 100) continue;
        double per_call = time / calls, busiest = 0;
        for (int r = 0; r < MS_MCA_RES; r++) {
            double together = (double)res[b * MS_MCA_RES + r] + use[r] / calls;
            if (together > busiest) busiest = together;
        }
        double c = busiest - per_call;
        if (c < cyc[b] - per_call) c = cyc[b] - per_call;
        if (c < 0) c = 0;
        if (c < cyc[b]) cyc[b] = c;
    }
}
