/**
 * File-name rules of a training dataset: which files are media, how captions pair with them (same base name,
 * `.txt`). Content types come from the download module's one MIME table.
 */

import { mimeTypeFor } from '../../shared/download';

export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp', 'tif', 'tiff', 'avif'];
export const VIDEO_EXTENSIONS = ['mp4', 'mov', 'webm', 'mkv', 'avi'];

export function extensionOf(fileName: string): string {
	const dot = fileName.lastIndexOf('.');
	return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** The name without its last extension (`a.b.jpg` → `a.b`). */
export function baseNameOf(fileName: string): string {
	const dot = fileName.lastIndexOf('.');
	return dot > 0 ? fileName.slice(0, dot) : fileName;
}

export const isMediaFile = (fileName: string): boolean => {
	const ext = extensionOf(fileName);
	return IMAGE_EXTENSIONS.includes(ext) || VIDEO_EXTENSIONS.includes(ext);
};

/** `img_0001.jpg` → `img_0001.txt`; a name already ending in `.txt` stays. */
export function captionFileNameFor(fileName: string): string {
	return extensionOf(fileName) === 'txt' ? fileName : `${baseNameOf(fileName)}.txt`;
}

/** The given type (parameters stripped), else the type the extension implies (the one MIME table, in download). */
export function contentTypeFor(fileName: string, given?: string): string {
	return mimeTypeFor(given, fileName);
}

/** Media files among `fileNames` that have no caption file with the same base name. */
export function findMissingCaptions(fileNames: Iterable<string>): string[] {
	const names = new Set(fileNames);
	return [...names].filter((n) => isMediaFile(n) && !names.has(`${baseNameOf(n)}.txt`)).sort();
}

export function missingCaptionWarning(fileName: string): string {
	return `${fileName} has no caption file (${baseNameOf(fileName)}.txt) in the dataset: upload one with Upload Caption, or set the Caption Field option when uploading`;
}

/**
 * A file name usable in a dataset (a flat folder): no path separators, no control characters, not `.`/`..`.
 * Returns the problem, or undefined when fine.
 */
export function fileNameProblem(fileName: string): string | undefined {
	if (!fileName.trim()) return 'the file name is empty';
	if (/[/\\]/.test(fileName)) return `"${fileName}" contains a path separator; a dataset is a flat folder, use a plain file name`;
	if (/\p{Cc}/u.test(fileName)) return `"${fileName}" contains control characters`;
	if (fileName === '.' || fileName === '..') return `"${fileName}" is not a file name`;
	if (fileName.length > 255) return 'the file name is longer than 255 characters';
	return undefined;
}
