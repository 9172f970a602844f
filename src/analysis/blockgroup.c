/* The blocks of a function's code outside its loops costed together; see blockgroup.h. */
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
