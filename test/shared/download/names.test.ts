/**
 * The pure parts of the download module: n8n's host-list rule for Allowed Download Hosts (one parser for the
 * credential and the nodes), per-hop host policies, Content-Disposition names and the one MIME table.
 */
import {
	DEFAULT_MAX_DOWNLOAD_BYTES,
	fileNameFromContentDisposition,
	fileNameFromUrl,
	formatBytes,
	isHostAllowed,
	listedHostsPolicy,
	matchAllowedHost,
	mimeTypeFor,
	parseAllowedHosts,
	publicHostsPolicy,
	sanitizeFileName,
} from '../../../nodes/shared/download';
import { parseAllowedHosts as transportParseAllowedHosts } from '../../../nodes/shared/transport';
import { contentTypeFor } from '../../../nodes/RunComfyDataset/helpers/files';

describe('isHostAllowed (n8n\'s rule: "*.x.com" means subdomains only)', () => {
	const defaults = ['*.runcomfy.net', '*.runcomfy.com'];
	it.each<[string, string[], boolean]>([
		['https://files.runcomfy.net/a.png', defaults, true],
		['https://runcomfy.net/a.png', defaults, false], // the bare domain needs its own entry, as in n8n
		['https://runcomfy.net/a.png', [...defaults, 'runcomfy.net'], true],
		['https://a.b.runcomfy.com/a.png', defaults, true],
		['https://FILES.RunComfy.NET./a.png', defaults, true],
		['https://evilruncomfy.net/a.png', defaults, false],
		['https://runcomfy.net.evil.com/a.png', defaults, false],
		['https://files.runcomfy.net@evil.com/a.png', defaults, false],
		['https://example.com/a.png', ['example.com'], true],
		['https://cdn.example.com/a.png', ['example.com'], false],
		['http://127.0.0.1:8080/a.png', ['127.0.0.1'], true],
		['http://127.0.0.2/a.png', ['127.0.0.1'], false],
		['http://127.0.0.1:9/a', ['127.0.0.1:8080'], true], // ports in patterns are ignored
		['https://Example.com/a', [' EXAMPLE.com '], true],
		['https://x.example.com/a', ['https://x.example.com/'], true],
		['http://[::1]:80/a', ['[::1]'], true],
		['http://[::1]:80/a', ['::1'], true],
		['http://2130706433/a', ['127.0.0.1'], true], // compared as the request sees the host
		['ftp://files.runcomfy.net/a', defaults, false],
		['file:///etc/passwd', ['*'], false],
		['not a url', defaults, false],
		['https://anything.org/a', ['*'], true],
		['https://files.runcomfy.net/a', [], false],
		['https://files.runcomfy.net/a', ['*runcomfy.net', 'files.*.net'], false], // no other wildcard forms
	])('%s with %j → %s', (url, hosts, expected) => {
		expect(isHostAllowed(url, hosts)).toBe(expected);
	});

	it('says how an entry matches: exactly, by domain, or only through "*"', () => {
		expect(matchAllowedHost('files.runcomfy.net', ['*', '*.runcomfy.net', 'files.runcomfy.net'])).toBe('exact');
		expect(matchAllowedHost('files.runcomfy.net', ['*', '*.runcomfy.net'])).toBe('domain');
		expect(matchAllowedHost('files.runcomfy.net', ['*'])).toBe('any');
		expect(matchAllowedHost('files.runcomfy.net', ['runcomfy.net'])).toBeUndefined();
	});

	it('turns matches into per-hop permissions: downloads need the list, Upload From URL takes any public host', () => {
		const url = (u: string) => new URL(u);
		const downloads = listedHostsPolicy(['*.runcomfy.net', '10.0.0.5']);
		expect(downloads(url('https://files.runcomfy.net/a'), 0)).toBe('listed');
		expect(downloads(url('http://10.0.0.5/a'), 0)).toBe('named');
		expect(downloads(url('https://example.com/a'), 1)).toBe('refused');
		expect(listedHostsPolicy(['*'])(url('https://example.com/a'), 0)).toBe('public');
		const uploads = publicHostsPolicy(['*.runcomfy.net', '10.0.0.5']);
		expect(uploads(url('https://example.com/a'), 0)).toBe('public');
		expect(uploads(url('https://files.runcomfy.net/a'), 0)).toBe('listed');
		expect(uploads(url('http://10.0.0.5/a'), 2)).toBe('named');
	});

	it('parses the credential list (one parser for the credential and the nodes)', () => {
		expect(parseAllowedHosts('*.runcomfy.net, *.RunComfy.com\n127.0.0.1;files.example.org')).toEqual([
			'*.runcomfy.net',
			'*.runcomfy.com',
			'127.0.0.1',
			'files.example.org',
		]);
		expect(parseAllowedHosts(['a', ' ', 'B'])).toEqual(['a', 'b']);
		expect(parseAllowedHosts(undefined)).toEqual([]);
		expect(parseAllowedHosts(null)).toEqual([]);
		expect(transportParseAllowedHosts).toBe(parseAllowedHosts);
	});
});

describe('Content-Disposition (RFC 6266, RFC 5987)', () => {
	it.each<[string | undefined, string | undefined]>([
		['attachment; filename="cat.png"', 'cat.png'],
		['attachment; filename=cat.png', 'cat.png'],
		['inline; FILENAME="a \\"quoted\\" name.png"', 'a _quoted_ name.png'],
		['attachment; filename="100%.png"', '100%.png'], // a plain filename is taken as written
		['attachment; filename="%E2%82%AC.png"', '%E2%82%AC.png'],
		["attachment; filename*=UTF-8''%E2%82%AC%20rates.png", '€ rates.png'],
		['attachment; filename="fallback.png"; filename*=utf-8\'en\'na%C3%AFve.png', 'naïve.png'], // filename* wins
		["attachment; filename*=iso-8859-1''caf%E9.png", 'café.png'],
		['attachment; filename*=UTF-8\'\'50%.png; filename="fallback.png"', 'fallback.png'], // malformed → filename
		["attachment; filename*=UTF-8''%E0%A4.png", undefined], // not UTF-8, and no fallback
		["attachment; filename*=UTF-8''%ZZ", undefined],
		["attachment; filename*=koi8-r''%E0.png; filename=x.png", 'x.png'],
		['attachment; filename="../../etc/passwd"', '_.._etc_passwd'],
		['attachment; filename="unterminated.png', 'unterminated.png'],
		['attachment', undefined],
		['attachment; filename=""', undefined],
		['', undefined],
		[undefined, undefined],
	])('%j → %j', (header, name) => {
		expect(fileNameFromContentDisposition(header)).toBe(name);
	});
});

describe('names and types', () => {
	it('derives file names from URLs', () => {
		expect(fileNameFromUrl('https://h/out/ComfyUI_00010_.png?sig=abc#x')).toBe('ComfyUI_00010_.png');
		expect(fileNameFromUrl('https://h/a/my%20image%C3%A9.png')).toBe('my imageé.png');
		expect(fileNameFromUrl('https://h/a/..%2F..%2Fetc%2Fpasswd')).toBe('_.._etc_passwd');
		expect(fileNameFromUrl('https://h/')).toBe('');
		expect(fileNameFromUrl('https://h/a/%E0%A4%A')).toBe('%E0%A4%A');
	});

	it('sanitises names', () => {
		expect(sanitizeFileName('a\u0000b\u001fc.png')).toBe('abc.png');
		expect(sanitizeFileName('C:\\x\\y.png')).toBe('C__x_y.png');
		expect(sanitizeFileName('...')).toBe('');
		expect(sanitizeFileName('.hidden')).toBe('hidden');
		const long = sanitizeFileName(`${'x'.repeat(300)}.safetensors`);
		expect(long.length).toBe(200);
		expect(long.endsWith('.safetensors')).toBe(true);
	});

	it('picks MIME types from the header, else the extension', () => {
		expect(mimeTypeFor('image/png; charset=binary', 'x')).toBe('image/png');
		expect(mimeTypeFor(undefined, 'a.JPG')).toBe('image/jpeg');
		expect(mimeTypeFor('application/octet-stream', 'clip.mp4')).toBe('video/mp4');
		expect(mimeTypeFor('', 'lora.safetensors')).toBe('application/octet-stream');
		for (const [ext, mime] of [
			['jpeg', 'image/jpeg'],
			['webp', 'image/webp'],
			['gif', 'image/gif'],
			['webm', 'video/webm'],
			['mov', 'video/quicktime'],
			['wav', 'audio/wav'],
			['mp3', 'audio/mpeg'],
			['flac', 'audio/flac'],
			['ogg', 'audio/ogg'],
			['yaml', 'application/yaml'],
			['txt', 'text/plain'],
			['json', 'application/json'],
		]) {
			expect(mimeTypeFor(undefined, `f.${ext}`)).toBe(mime);
		}
		expect(mimeTypeFor(undefined, 'noext')).toBe('application/octet-stream');
		// one table for downloads and dataset uploads (the dataset's image kinds included)
		expect(mimeTypeFor(undefined, 'a.avif')).toBe('image/avif');
		expect(contentTypeFor('a.avif')).toBe('image/avif');
		expect(contentTypeFor('clip.MOV', 'binary/octet-stream')).toBe('video/quicktime');
		expect(contentTypeFor('a.png', 'image/webp; q=1')).toBe('image/webp');
	});

	it('formats sizes', () => {
		expect(formatBytes(DEFAULT_MAX_DOWNLOAD_BYTES)).toBe('2 GiB');
		expect(formatBytes(3.1 * 1024 ** 3)).toBe('3.1 GiB');
		expect(formatBytes(512)).toBe('512 bytes');
	});
});
