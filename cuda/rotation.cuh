// Applying one plane rotation g = (c, s): (x, y) := (c x + s y, c y - s x), written out so that
// the running value of a chain of rotations passes through a single FMA per rotation. In a chain
// (or fan) every rotation takes the value the one before it produced, so that one dependent FMA
// per rotation, not two (a product, then an FMA), is the chain's latency.
#pragma once

namespace gpueig::gpu {

// y is the running value: the product with x is formed off the dependent path.
__device__ inline void rotate_carry_y(double2 g, double &x, double &y) {
  const double cx = g.x * x, sx = g.y * x;
  x = fma(g.y, y, cx);
  y = fma(g.x, y, -sx);
}

// x is the running value.
__device__ inline void rotate_carry_x(double2 g, double &x, double &y) {
  const double sy = g.y * y, cy = g.x * y;
  const double x0 = x;
  x = fma(g.x, x0, sy);
  y = fma(-g.y, x0, cy);
}

}  // namespace gpueig::gpu
