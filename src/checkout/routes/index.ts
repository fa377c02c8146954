import cancelOrder from "./cancel-order";
import createCart from "./create-cart";
import createOrder from "./create-order";
import getCart from "./get-cart";
import getOrder from "./get-order";
import listOrders from "./list-orders";

export const checkoutRoutes = [createCart, getCart, createOrder, getOrder, cancelOrder, listOrders];
