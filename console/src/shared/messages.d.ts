/** A language's catalog, compiled when the console is built (console/i18n-messages.ts): each message a function of its values. */
declare module "virtual:messages/*" {
  const messages: Record<string, (values?: Record<string, unknown>) => string>;
  export default messages;
}
