/*
 * A conforming but unstable qsort, linked into one unit-test binary in place of the C
 * library's. C does not say in which order qsort leaves elements that compare equal (glibc
 * 2.36's merge sort happens to keep them; glibc 2.37's introsort and musl's smoothsort do
 * not). This one sorts correctly and then reverses every run of equal elements, so a planner
 * that depends on the order of equal elements shows it on any C library.
 */
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

extern "C" void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    char *b = static_cast<char *>(base);
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t x, size_t y) { return cmp(b + x * size, b + y * size) < 0; });
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cmp(b + idx[i] * size, b + idx[j] * size) == 0)
            j++;
        std::reverse(idx.begin() + (std::ptrdiff_t)i, idx.begin() + (std::ptrdiff_t)j);
        i = j;
    }
    std::vector<char> out(n * size);
    for (size_t i = 0; i < n; i++)
        std::memcpy(out.data() + i * size, b + idx[i] * size, size);
    std::memcpy(b, out.data(), n * size);
}
