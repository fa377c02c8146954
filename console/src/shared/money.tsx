/** An amount as the API holds it (minor units of the tenant's currency). */
export function Money({ amount }: { amount: number }) {
  return <>{amount}</>;
}
