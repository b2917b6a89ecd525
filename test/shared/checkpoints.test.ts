/** nodes/shared/checkpoints.ts: the latest checkpoint among a training job's artifacts (Training and Trigger). */
import { checkpointStep, pickLatestCheckpoint } from '../../nodes/shared/checkpoints';

describe('latest checkpoint', () => {
	const base = 'https://files.runcomfy.net/train/j';
	it('prefers the final save, else the highest step', () => {
		const list = [
			{ url: `${base}/lora_000000500.safetensors` },
			{ url: `${base}/lora_000001000.safetensors` },
			{ url: `${base}/samples/000000500_0.jpg` },
		];
		expect(pickLatestCheckpoint(list)?.url).toBe(`${base}/lora_000001000.safetensors`);
		expect(pickLatestCheckpoint([...list, { url: `${base}/lora.safetensors` }])?.url).toBe(`${base}/lora.safetensors`);
		expect(pickLatestCheckpoint([{ url: `${base}/config.yaml` }])).toBeUndefined();
		expect(checkpointStep(`${base}/lora_000000250.safetensors?sig=1`)).toBe(250);
	});
});

describe('checkpoint step', () => {
	it('reads the step from encoded names and keeps a malformed encoding instead of throwing', () => {
		expect(checkpointStep('https://files.runcomfy.net/train/j/my%20lora_000000300.safetensors')).toBe(300);
		expect(checkpointStep('https://files.runcomfy.net/train/j/bad%E0%A4%A_000000300.safetensors')).toBe(300);
		expect(checkpointStep('lora_000000010.SAFETENSORS')).toBe(10);
		expect(checkpointStep('https://files.runcomfy.net/train/j/samples/1.jpg')).toBeUndefined();
	});
});
