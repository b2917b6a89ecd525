/** Kept so existing imports compile: the one limiter and `mapPool` live in ./wait/limiter. */
export { mapPool } from './wait/limiter';
