-- A cart is ordered at most once: POST /v1/orders { cartId } twice answers 409 cart_already_ordered.
-- Partial, so direct orders (no cart) cost nothing here.
CREATE UNIQUE INDEX orders_cart ON orders (cart_id) WHERE cart_id IS NOT NULL;
-- GET /v1/operations/{id}/orders?accountIds=… for one account's orders, newest first.
CREATE INDEX orders_account ON orders (operation_id, account_id, created_at, id);
