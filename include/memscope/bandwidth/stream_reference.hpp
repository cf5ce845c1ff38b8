#pragma once
// CPU references for the STREAM kernels, written independently of the kernels' operators.
// Pure C++, double precision.

namespace memscope::bandwidth::reference {

inline double copy(double a) { return a; }
inline double scale(double s, double a) { return s * a; }
inline double add(double a, double b) { return a + b; }
inline double triad(double a, double s, double b) { return a + s * b; }

}  // namespace memscope::bandwidth::reference
