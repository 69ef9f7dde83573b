"use client";

function applyCoupon(total, code) {
  if (code.startsWith("BROKEN")) {
    throw new Error(`coupon ${code} exploded in a client component`);
  }
  return total * 0.9;
}

export function CouponButton() {
  return (
    <button type="button" onClick={() => applyCoupon(120, "BROKEN-42")}>
      Apply coupon
    </button>
  );
}
