/** A column of the grid: which field its cells edit, and how it shows and tidies their values. */
export interface GridColumn {
  /** The field the column edits (its cells' key, and the API's field name). */
  key: string;
  label: string;
  /** The header on a phone's width, where the label does not fit (the label stays its accessible name). */
  short?: string;
  numeric?: boolean;
  /** A value as the column holds it once written (typed, pasted, filled, replaced): "180" → "180.00"; text it cannot read stays as typed. */
  normalize?: (text: string) => string;
  /** Its share of the room on a wide screen (CSS `fr`), 1 unless told. */
  grow?: number;
  /** Never cut on a wide screen either (as the first column): its widest value sets its width, past the usual cap (a read-only grid's names). */
  whole?: boolean;
}
