/**
 * File-name rules of a training dataset: which files are media, how captions pair with them (same base name,
 * `.txt`), content types by extension (as the official CLI guesses them).
 */

export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp', 'tif', 'tiff', 'avif'];
export const VIDEO_EXTENSIONS = ['mp4', 'mov', 'webm', 'mkv', 'avi'];

const CONTENT_TYPES: Record<string, string> = {
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	png: 'image/png',
	webp: 'image/webp',
	gif: 'image/gif',
	bmp: 'image/bmp',
	tif: 'image/tiff',
	tiff: 'image/tiff',
	avif: 'image/avif',
	mp4: 'video/mp4',
	mov: 'video/quicktime',
	webm: 'video/webm',
	mkv: 'video/x-matroska',
	avi: 'video/x-msvideo',
	txt: 'text/plain',
	json: 'application/json',
	yaml: 'application/yaml',
	yml: 'application/yaml',
};

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

export function contentTypeFor(fileName: string, given?: string): string {
	const clean = (given ?? '').split(';')[0].trim().toLowerCase();
	if (clean && clean !== 'application/octet-stream') return clean;
	return CONTENT_TYPES[extensionOf(fileName)] ?? 'application/octet-stream';
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
	// eslint-disable-next-line no-control-regex
	if (/[\u0000-\u001f\u007f]/.test(fileName)) return `"${fileName}" contains control characters`;
	if (fileName === '.' || fileName === '..') return `"${fileName}" is not a file name`;
	if (fileName.length > 255) return 'the file name is longer than 255 characters';
	return undefined;
}

/** Last path segment of a URL, decoded (`''` when there is none). */
export function fileNameFromUrl(url: string): string {
	try {
		const segment = new URL(url).pathname.split('/').pop() ?? '';
		return decodeURIComponent(segment);
	} catch {
		return '';
	}
}
