import { useInfiniteQuery, type InfiniteData, type UseInfiniteQueryResult } from "@tanstack/react-query";
import { Fragment, type ReactNode } from "react";
import { t } from "./i18n";
import { toRefusal } from "./session";
import { ProblemView, SortChoice } from "./ui";

export interface Column<T> {
  header: ReactNode;
  cell: (item: T) => ReactNode;
  numeric?: boolean;
  /** Long content (a change's values, an event's data) wraps in its cell rather than widening the table. */
  wrap?: boolean;
}

/** One page as every list of the API answers it. */
export interface Page<T> {
  items: T[];
  nextToken?: string | null;
}

/**
 * A table of items: a header row, one row per item, a message when there is none. On a narrow
 * screen each row stacks into a card whose cells carry their column's name (styles.css), instead of
 * a table that scrolls sideways; the explicit roles keep it a table for assistive technology, which
 * a change of CSS display would otherwise take away.
 */
export function ListTable<T>({
  label,
  columns,
  items,
  rowKey,
  empty,
  pending = false,
  rowClass,
  detail,
}: {
  label: string;
  columns: Column<T>[];
  items: T[];
  rowKey: (item: T) => string;
  empty: string;
  pending?: boolean;
  rowClass?: (item: T) => string | undefined;
  /** What an item opened shows under its row, across the columns (null: closed). */
  detail?: (item: T) => ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="list stackable" aria-label={label} role="table">
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed and have no id; their place is what they are.
              <th key={i} scope="col" role="columnheader" className={column.numeric ? "num" : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {items.map((item) => {
            const opened = detail?.(item);
            return (
              <Fragment key={rowKey(item)}>
                <tr role="row" className={rowClass?.(item)}>
                  {columns.map((column, i) => (
                    <td
                      // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed and have no id; their place is what they are.
                      key={i}
                      role="cell"
                      className={[column.numeric && "num", column.wrap && "wrap"].filter(Boolean).join(" ") || undefined}
                      data-label={typeof column.header === "string" ? column.header : undefined}
                    >
                      {/* One element: on a phone the cell is a flex row (its label, then this), whatever the content holds. */}
                      <span className="cell">{column.cell(item)}</span>
                    </td>
                  ))}
                </tr>
                {opened && (
                  <tr role="row" className="detail">
                    <td role="cell" colSpan={columns.length} className="wrap">
                      {opened}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
          {items.length === 0 && (
            <tr role="row">
              <td role="cell" colSpan={columns.length} className="muted">
                {/* Until the first page is in, the table says so rather than standing empty. */}
                {pending ? t("common.loading") : empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A list of the API read a page at a time (keyset paging): what a resource's list hook answers. */
export type PagedQuery<T> = UseInfiniteQueryResult<InfiniteData<Page<T>>, Error>;

/** The paged query of a list: `queryKey` (from queryKeys) names it with everything it depends on, `fetchPage` reads one page. */
export function usePagedQuery<T>(
  queryKey: readonly unknown[],
  fetchPage: (nextToken: string | undefined) => Promise<Page<T>>,
  options: { refetchInterval?: number; enabled?: boolean } = {},
): PagedQuery<T> {
  return useInfiniteQuery({
    queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    getNextPageParam: (page: Page<T>) => page.nextToken ?? undefined,
    ...options,
  });
}

export interface PagedListProps<T> {
  /** Names the table. */
  label: string;
  /** The list, from its resource's hook (e.g. useOperationList). */
  list: PagedQuery<T>;
  columns: Column<T>[];
  rowKey: (item: T) => string;
  empty: string;
  /** The filter fields, in the list's search form. */
  children?: ReactNode;
  /** [value, label] pairs of the API's sort, with the current one. */
  sorts?: readonly (readonly [string, string])[];
  sort?: string;
  onSort?: (sort: string) => void;
  rowClass?: (item: T) => string | undefined;
}

/** A list of the API: its filters and sort, keyset paging (`Load more`), its refusal and empty state. */
export function PagedList<T>({ label, list, columns, rowKey, empty, children, sorts, sort, onSort, rowClass }: PagedListProps<T>) {
  const items = list.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      {(children || sorts) && (
        <form className="filters" role="search" aria-label={t("common.filters", { list: label })} onSubmit={(e) => e.preventDefault()}>
          {children}
          {sorts && onSort && <SortChoice value={sort ?? ""} choices={sorts} onChange={onSort} />}
        </form>
      )}
      <ProblemView refusal={list.error ? toRefusal(list.error) : null} />
      <ListTable label={label} columns={columns} items={items} rowKey={rowKey} empty={empty} pending={list.isPending} rowClass={rowClass} />
      <LoadMore list={list} />
    </>
  );
}

/** The next page of a list, while there is one (`label`: what the button says, "Load more" unless told). */
export function LoadMore({
  list,
  label = t("common.loadMore"),
}: {
  list: Pick<PagedQuery<unknown>, "hasNextPage" | "isFetchingNextPage" | "fetchNextPage">;
  label?: string;
}) {
  if (!list.hasNextPage) return null;
  return (
    <button type="button" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
      {label}
    </button>
  );
}
