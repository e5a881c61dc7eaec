// Instants as the API writes them, Date.toISOString()'s form (UTC, milliseconds), made by
// PostgreSQL where that text is what the answer shows: the driver makes no Date to be formatted
// again (its timestamptz parser was the largest share a bulk edit spent on its 200 instants).
// to_char's MS truncates, as a Date made from the stored microseconds does.

/** The to_char format (SQL text, quoted). */
export const ISO_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The SQL expression of `column`'s instant as ISO text. */
export const isoText = (column: string) => `to_char(${column} at time zone 'UTC', ${ISO_FORMAT})`;
