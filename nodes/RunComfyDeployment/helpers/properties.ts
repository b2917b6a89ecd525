/** Fields that several operations of the Deployment node show (the common descriptions of n8n's Airtable v2 layout). */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { requestIdProperty as sharedRequestIdProperty } from '../../shared/descriptions';
import { HARDWARE_SKUS } from '../../shared/types';

export { deploymentLocatorProperty } from '../../shared/pickers/deployments';

/** The request id of an earlier inference (Get Status, Get Result, Cancel, Delete Request). */
export const requestIdProperty: INodeProperties = sharedRequestIdProperty('e.g. f033c4a2-1b9e-4d2a-8c55-6e7f0a1b2c3d');

/** Deletes the request's inputs and outputs on the service once every output was downloaded (Run, Get Result). */
export const deleteAfterDownloadOption: INodeProperties = {
	displayName: 'Delete Request After Download',
	name: 'deleteRequestAfterDownload',
	type: 'boolean',
	default: false,
	description:
		'Whether to delete the request on RunComfy (its inputs and outputs) once every output file was downloaded. Otherwise outputs are kept on the service for 7 days. Only with Download Outputs on; nothing is deleted when a download fails or is skipped.',
};

export const hardwareOptions = HARDWARE_SKUS.map((sku) => ({ name: sku, value: sku }));

export const HARDWARE_DESCRIPTION =
	'GPU type of the instances (one SKU), e.g. AMPERE_48 = 48 GB, ADA_80_PLUS = 80 GB (H100), HOPPER_141 = 141 GB (H200)';

/**
 * "Wait Mode" of Inference → Run (RunComfy calls back for deployment requests): wait in this execution (the
 * default) or park it until the callback (shared/jobs/park/), with a notice of what parking needs.
 */
export function waitModeProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const shown = { show: { ...show, waitForCompletion: [true] } };
	return [
		{
			displayName: 'Wait Mode',
			name: 'waitMode',
			type: 'options',
			noDataExpression: true,
			default: 'inProcess',
			displayOptions: shown,
			options: [
				{
					name: 'Wait in This Execution',
					value: 'inProcess',
					description:
						'Check the status until every request has finished; the execution stays active meanwhile (best for runs of seconds to a few minutes)',
				},
				{
					name: 'Park Until RunComfy Calls Back',
					value: 'park',
					description:
						'Save the execution as waiting (no memory, no worker slot) until RunComfy POSTs each result to n8n; needs an n8n reachable from the internet',
				},
			],
			description: 'How to wait for the requests. An AI agent calling this node always waits in the execution.',
		},
		{
			displayName:
				"Parked: RunComfy calls this execution back when each request ends, so WEBHOOK_URL must be public. At Max Wait, requests without a result are output with their Request ID; see the node's docs.",
			name: 'parkNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { ...show, waitForCompletion: [true], waitMode: ['park'] } },
		},
	];
}
