import type { INodeProperties } from 'n8n-workflow';

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
