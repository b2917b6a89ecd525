/** Types of scripts/pack-files.js (what `npm pack` ships), for test/project. */
export function packList(): { files: string[]; size: number; unpackedSize: number };
export function unexpectedFiles(files: string[]): string[];
