export interface Migration {
  /** Unique and never renamed: it is recorded in _migrations. */
  id: string;
  sql: string;
}
