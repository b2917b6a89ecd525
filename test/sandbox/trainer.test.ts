/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/** The sandbox trainer's datasets: names, uploads (direct and signed), processing and deletion. */
import { Readable } from 'stream';

import { client, distinct, pollUntil, useStartedSandbox } from './helpers';
import { D, TRAINER_SANDBOX, form, multipartStream } from './trainer-helpers';

describe('sandbox trainer: datasets', () => {
	const sb = useStartedSandbox(TRAINER_SANDBOX);

	const T = () => sb.urls.trainer;

	describe('datasets', () => {
		it('creates DRAFT datasets with unique names (409 40901), lists and deletes them', async () => {
			const created = await client(sb).post(`${T()}${D}`, { name: 'dogs' });
			expect(created.status).toBe(200);
			expect(created.data).toMatchObject({ name: 'dogs', status: 'DRAFT', error: null });
			const dup = await client(sb).post(`${T()}${D}`, { name: 'dogs' });
			expect(dup.status).toBe(409);
			expect(dup.data.error_code).toBe(40901);
			expect((await client(sb).post(`${T()}${D}`, { name: 'bad/name' })).status).toBe(422);
			const generated = (await client(sb).post(`${T()}${D}`, {})).data;
			expect(generated.name).toMatch(/^dataset-/);
			const list = (await client(sb).get(`${T()}${D}`)).data;
			expect(list.datasets.map((d: { name: string }) => d.name).sort()).toEqual([generated.name, 'dogs'].sort());
			expect(list.datasets[0].files).toBeUndefined();
			sb.configure({ quirks: { wrappedDatasetList: false } });
			expect(Array.isArray((await client(sb).get(`${T()}${D}`)).data)).toBe(true);
			expect((await client(sb).delete(`${T()}${D}/${created.data.id}`)).data).toEqual({ id: created.data.id, deleted: true });
			const gone = await client(sb).get(`${T()}${D}/${created.data.id}/status`);
			expect(gone.status).toBe(404);
			expect(gone.data.error_code).toBe(40401);
		});

		it('goes DRAFT -> UPLOADING -> READY and lists uploaded files with sizes', async () => {
			// UPLOADING until the test lets it become READY (the sandbox reads datasetReadyMs at each status)
			sb.configure({ datasetReadyMs: 60_000 });
			const id = (await client(sb).post(`${T()}${D}`, { name: 'dogs' })).data.id;
			const up = await client(sb).post(`${T()}${D}/${id}/upload`, form('img_0001.jpg', Buffer.alloc(1234, 7)));
			expect(up.status).toBe(200);
			expect(up.data).toMatchObject({ filename: 'img_0001.jpg', size_bytes: 1234 });
			const cap = await client(sb).post(`${T()}${D}/${id}/upload`, { filename: 'img_0001.txt', text: 'a photo of sks dog' });
			expect(cap.data).toMatchObject({ filename: 'img_0001.txt', size_bytes: 18 });
			const seen: string[] = ['DRAFT'];
			seen.push((await client(sb).get(`${T()}${D}/${id}/status`)).data.status);
			sb.configure({ datasetReadyMs: 0 });
			const final = await pollUntil(
				async () => {
					const s = (await client(sb).get(`${T()}${D}/${id}/status`)).data;
					seen.push(s.status);
					return s;
				},
				(s) => s.status === 'READY',
			);
			expect(distinct(seen)).toEqual(['DRAFT', 'UPLOADING', 'READY']);
			expect(final.files).toEqual([
				{ filename: 'img_0001.jpg', size_bytes: 1234 },
				{ filename: 'img_0001.txt', size_bytes: 18 },
			]);
			// re-upload overwrites
			await client(sb).post(`${T()}${D}/${id}/upload`, { filename: 'img_0001.txt', text: 'sks' });
			const after = await pollUntil(
				async () => (await client(sb).get(`${T()}${D}/${id}/status`)).data,
				(s) => s.status === 'READY',
			);
			expect(after.files).toHaveLength(2);
			expect(after.files[1].size_bytes).toBe(3);
			const log = sb.log().find((e) => e.path.endsWith('/upload') && (e.body as { file?: unknown })?.file);
			expect(log?.body).toEqual({ file: { filename: 'img_0001.jpg', size: 1234, contentType: 'image/jpeg' } });
		});

		it('turns FAILED with an error when a file name contains "fail"', async () => {
			const id = (await client(sb).post(`${T()}${D}`, { name: 'broken' })).data.id;
			await client(sb).post(`${T()}${D}/${id}/upload`, form('ok.jpg', 'x'));
			await client(sb).post(`${T()}${D}/${id}/upload`, form('will_fail.jpg', 'x'));
			const s = await pollUntil(
				async () => (await client(sb).get(`${T()}${D}/${id}/status`)).data,
				(d) => d.status === 'FAILED',
			);
			expect(s.error).toMatch(/will_fail\.jpg/);
			expect(s.files.map((f: { filename: string }) => f.filename)).toEqual(['ok.jpg']);
		});

		it('rejects bad uploads: no file part, path names, local source_url', async () => {
			const id = (await client(sb).post(`${T()}${D}`, { name: 'dogs' })).data.id;
			const fd = new FormData();
			fd.append('other', 'x');
			expect((await client(sb).post(`${T()}${D}/${id}/upload`, fd)).status).toBe(422);
			expect((await client(sb).post(`${T()}${D}/${id}/upload`, { filename: '../x.txt', text: 'x' })).status).toBe(422);
			const local = await client(sb).post(`${T()}${D}/${id}/upload`, { source_url: '/home/me/cat.jpg' });
			expect(local.status).toBe(422);
			expect(local.data.detail[0].loc).toEqual(['body', 'source_url']);
			const fromUrl = await client(sb).post(`${T()}${D}/${id}/upload`, { source_url: `${sb.urls.files}/files/gen/5000/cat.jpg` });
			expect(fromUrl.data).toMatchObject({ filename: 'cat.jpg', size_bytes: 5000 });
			expect((await client(sb).post(`${T()}${D}/nope/upload`, form('a.jpg', 'x'))).status).toBe(404);
		});

		it('streams a 150,000,000-byte multipart upload and refuses one byte more with 413', async () => {
			const id = (await client(sb).post(`${T()}${D}`, { name: 'big' })).data.id;
			const exact = multipartStream('exact.mp4', 150_000_000, 'video/mp4');
			const ok = await client(sb).post(`${T()}${D}/${id}/upload`, exact.stream, { headers: exact.headers });
			expect(ok.status).toBe(200);
			expect(ok.data.size_bytes).toBe(150_000_000);
			const over = multipartStream('over.mp4', 150_000_001, 'video/mp4');
			const res = await client(sb).post(`${T()}${D}/${id}/upload`, over.stream, { headers: over.headers });
			expect(res.status).toBe(413);
			expect(res.data.error_code).toBe(41301);
			const files = (await client(sb).get(`${T()}${D}/${id}/status`)).data.files;
			expect(files).toEqual([{ filename: 'exact.mp4', size_bytes: 150_000_000 }]);
		});
	});

	describe('signed uploads', () => {
		async function signed(name: string, size: number) {
			const id = (await client(sb).post(`${T()}${D}`, { name: 'signed' })).data.id;
			const res = await client(sb).post(`${T()}${D}/${id}/get-upload-endpoint`, { filenameToByteSize: { [name]: size } });
			expect(res.status).toBe(200);
			return { id, up: res.data.uploads[name] as { upload_url: string; method: string; headers: Record<string, string> } };
		}

		it('returns PUT URLs on the file host and accepts exactly the signed size without the token', async () => {
			const { id, up } = await signed('big.mp4', 4096);
			expect(up.method).toBe('PUT');
			expect(up.headers).toEqual({ 'Content-Type': 'video/mp4' });
			expect(up.upload_url.startsWith(`${sb.urls.files}/upload/${id}/`)).toBe(true);
			const put = await client(sb, null).put(up.upload_url, Buffer.alloc(4096, 1), { headers: up.headers });
			expect(put.status).toBe(200);
			const entry = sb.log().find((e) => e.method === 'PUT');
			expect(entry?.api).toBe('files');
			expect(entry?.authorization).toBeUndefined();
			const st = await pollUntil(
				async () => (await client(sb).get(`${T()}${D}/${id}/status`)).data,
				(d) => d.status === 'READY',
			);
			expect(st.files).toEqual([{ filename: 'big.mp4', size_bytes: 4096 }]);
		});

		it('rejects a wrong size, a tampered URL, another content type and a missing Content-Length', async () => {
			const { up } = await signed('big.mp4', 4096);
			const short = await client(sb, null).put(up.upload_url, Buffer.alloc(4095), { headers: up.headers });
			expect(short.status).toBe(403);
			expect(String(short.data)).toMatch(/SignatureDoesNotMatch/);
			const tampered = await client(sb, null).put(up.upload_url.replace('size=4096', 'size=4095'), Buffer.alloc(4095), {
				headers: up.headers,
			});
			expect(tampered.status).toBe(403);
			const type = await client(sb, null).put(up.upload_url, Buffer.alloc(4096), { headers: { 'Content-Type': 'image/png' } });
			expect(type.status).toBe(403);
			const chunked = await client(sb, null).put(up.upload_url, Readable.from([Buffer.alloc(4096)]), { headers: up.headers });
			expect(chunked.status).toBe(411);
		});

		it('rejects an expired URL with 403', async () => {
			sb.configure({ signedUrlTtlMs: 0 });
			const { up } = await signed('a.jpg', 10);
			await pollUntil(
				async () => Date.now(),
				(t) => t > Number(new URL(up.upload_url).searchParams.get('expires')),
			);
			const res = await client(sb, null).put(up.upload_url, Buffer.alloc(10), { headers: up.headers });
			expect(res.status).toBe(403);
			expect(String(res.data)).toMatch(/expired/);
		});

		it('validates filenameToByteSize', async () => {
			const id = (await client(sb).post(`${T()}${D}`, { name: 'v' })).data.id;
			for (const body of [
				{},
				{ filenameToByteSize: {} },
				{ filenameToByteSize: { 'a.jpg': 0 } },
				{ filenameToByteSize: { 'a.jpg': true } },
				{ filenameToByteSize: { 'a/b.jpg': 3 } },
			]) {
				expect((await client(sb).post(`${T()}${D}/${id}/get-upload-endpoint`, body)).status).toBe(422);
			}
		});
	});
});
