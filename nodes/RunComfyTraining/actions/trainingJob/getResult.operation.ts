import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getTrainingJobResult } from '../../../shared/transport';
import { artifactDownloadProperties, readArtifactOptions, withArtifacts } from '../../helpers/artifacts';
import { jobIdProperty, readJobId } from '../../helpers/jobFields';
import { describeResult, jobState } from '../../helpers/jobRecords';
import { withPublicStatus } from '../../../shared/status';
import { DownloadHosts } from '../../../shared/outputs';

const properties: INodeProperties[] = [jobIdProperty(), ...artifactDownloadProperties({})];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['getResult'] } }, properties);

/**
 * The artifacts of a job (safe while RUNNING, the list grows, and after FAILED or CANCELED): every URL flattened as
 * `artifact_urls`, the latest checkpoint as `latest_checkpoint_url` and as `lora: { path }` for the Model node.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const jobId = readJobId(this, itemIndex);
	const choice = readArtifactOptions(this, itemIndex);
	const result = await getTrainingJobResult(this, jobId);
	const described = describeResult(jobId, result);
	// The job's status in the nodes' one vocabulary, judged from the result alone (STOPPED with an error: stopped early).
	const json = withPublicStatus({ ...described }, jobState(result, result));
	return await withArtifacts(this, { json, pairedItem: { item: itemIndex } }, described, choice, new DownloadHosts(this));
}
