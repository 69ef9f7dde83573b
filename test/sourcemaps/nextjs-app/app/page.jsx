import { CouponButton } from "./coupon-button";

export default function Page() {
  return (
    <main>
      <h1>Shop</h1>
      <CouponButton />
    </main>
  );
}
