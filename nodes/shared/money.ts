/** Money as the service counts it: whole microdollars, so sums and comparisons are exact. */

export const MICRODOLLARS_PER_USD = 1_000_000;

/** The largest amount a USD setting accepts (Minimum Balance, Max Estimated Cost, the Trigger's threshold). */
export const MAX_USD_SETTING = 1_000_000;

/** USD → whole microdollars. */
export const toMicrodollars = (usd: number): number => Math.round(usd * MICRODOLLARS_PER_USD);

/** USD rounded to whole microdollars (an estimate without float dust). */
export const roundToMicrodollars = (usd: number): number => toMicrodollars(usd) / MICRODOLLARS_PER_USD;
