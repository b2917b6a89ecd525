/** Types of scripts/pack-files.js (what `npm pack` ships), for test/project. */
export const TOP_LEVEL: string[];
export const SHIPPED: RegExp;
export function packList(): { files: string[]; size: number; unpackedSize: number };
export function unexpectedFiles(files: string[]): string[];
