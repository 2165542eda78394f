/**
 * The down-shift's default threshold, alone so that the schema that documents it (schemas/downshift.ts)
 * imports nothing that imports the schemas back.
 */

/** The share of a budget spent before the rest goes down the ladder, when the spec names none. */
export const DEFAULT_DOWNSHIFT_THRESHOLD = 0.8;
