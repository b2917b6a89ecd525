/** Downloading a job's artifacts (optional, off by default): which ones, through the one download path. */
import type { IDisplayOptions, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadProperties } from '../../shared/descriptions';
import type { FoundUrl } from '../../shared/download';
import { readDownloadOptions } from '../../shared/params';
import type { DownloadChoice } from '../../shared/params';
import { fetchFiles, filesOnItems } from '../../shared/outputs';
import type { DownloadHosts, FilesNote } from '../../shared/outputs';
import type { DescribedResult } from './jobRecords';
import { pathOf } from './jobRecords';

const ARTIFACT_CHOICES = ['allCheckpoints', 'config', 'latestCheckpoint', 'samples'];

export function artifactDownloadProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const [toggle, ...layoutAndSize] = downloadProperties(show, false);
	return [
		{
			...toggle,
			description:
				"Whether to download artifacts into binary data. Checkpoints can be large. Only hosts in the credential's Allowed Download Hosts are fetched, without your token.",
		},
		{
			displayName: 'Artifacts to Download',
			name: 'artifactsToDownload',
			type: 'multiOptions',
			default: ['latestCheckpoint'],
			options: [
				{ name: 'All Checkpoints', value: 'allCheckpoints' },
				{ name: 'Config', value: 'config', description: 'The resolved config file' },
				{ name: 'Latest Checkpoint', value: 'latestCheckpoint' },
				{ name: 'Samples', value: 'samples', description: 'Sample images or videos made during training' },
			],
			displayOptions: { show: { ...show, downloadOutputs: [true] } },
		},
		...layoutAndSize,
	];
}

export interface ArtifactChoice extends DownloadChoice {
	what: string[];
}

/** The artifact download options of one item, checked (read before anything is paid). */
export function readArtifactOptions(ctx: IExecuteFunctions, itemIndex: number): ArtifactChoice {
	const download = readDownloadOptions(ctx, itemIndex, false);
	if (!download.enabled) return { ...download, what: [] };
	const raw = ctx.getNodeParameter('artifactsToDownload', itemIndex, ['latestCheckpoint']) as unknown;
	const what = Array.isArray(raw) ? raw.map(String) : [String(raw)];
	const unknown = what.filter((w) => !ARTIFACT_CHOICES.includes(w));
	if (unknown.length) {
		throw new NodeOperationError(ctx.getNode(), `"Artifacts to Download" of item ${itemIndex} has unknown values: ${unknown.join(', ')}`, {
			itemIndex,
			description: `Choose from ${ARTIFACT_CHOICES.join(', ')}. Nothing was submitted.`,
		});
	}
	return { ...download, what };
}

/** What an item says about its artifact downloads: which arrived (and their file names), which not and why. */
const artifactsNote: FilesNote = ({ downloaded, skipped }) => ({
	downloaded: downloaded.map((d) => ({ url: d.url, path: d.path, fileName: d.binary.fileName ?? null })),
	skipped: skipped.map((s) => ({ url: s.url, path: s.path, reason: s.reason })),
});

/** The artifacts of a described result chosen by "Artifacts to Download", without repeats, in a stable order. */
function chosenArtifacts(described: DescribedResult, choice: ArtifactChoice): FoundUrl[] {
	const chosen: FoundUrl[] = [];
	const add = (list: FoundUrl[]) => {
		for (const u of list) if (!chosen.some((c) => c.url === u.url)) chosen.push(u);
	};
	const urls = described.artifact_urls;
	if (choice.what.includes('latestCheckpoint') && described.latest_checkpoint_url) {
		add(urls.filter((u) => u.url === described.latest_checkpoint_url).slice(0, 1));
	}
	if (choice.what.includes('allCheckpoints')) add(urls.filter((u) => described.checkpoint_urls.includes(u.url)));
	if (choice.what.includes('samples')) add(urls.filter((u) => described.sample_urls.includes(u.url)));
	if (choice.what.includes('config')) add(urls.filter((u) => /config/i.test(u.path) || /\.(ya?ml|json)$/i.test(pathOf(u.url))));
	return chosen;
}

/**
 * The output item(s) of a described result: `item` as is when downloads are off; otherwise the chosen artifacts
 * downloaded and laid out as "Output Files" says (on the item, or one item per file), with `downloaded` and
 * `skipped` listing what happened.
 */
export async function withArtifacts(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	described: DescribedResult,
	choice: ArtifactChoice,
	hosts: DownloadHosts,
): Promise<INodeExecutionData[]> {
	if (!choice.enabled) return [item];
	const fetched = await fetchFiles(ctx, chosenArtifacts(described, choice), choice, hosts, 'artifact');
	return filesOnItems(item, fetched, choice, artifactsNote);
}
