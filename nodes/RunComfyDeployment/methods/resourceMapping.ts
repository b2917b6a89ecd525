import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { getDeployment } from '../../shared/transport';
import { currentDeploymentId } from '../helpers/deployments';
import { graphOf, inputsToFields } from '../helpers/graph';

/**
 * The "Define Below" overrides: one field per literal input of the deployment's saved workflow, named after
 * the node ("CLIP Text Encode (Prompt) #6 → text"), typed and pre-filled from the current value. Inputs wired
 * to another node's output (["4", 0]) are not overridable and not listed.
 */
export async function getWorkflowInputs(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const deploymentId = currentDeploymentId(this);
	if (!deploymentId) {
		return { fields: [], emptyFieldsNotice: 'Pick a deployment first: its saved workflow provides the inputs.' };
	}
	const deployment = await getDeployment(this, deploymentId, { includePayload: true });
	const graph = graphOf(deployment);
	if (!graph) {
		return {
			fields: [],
			emptyFieldsNotice: 'This deployment has no saved workflow to take inputs from (e.g. a LoRA deployment). Use the JSON input mode.',
		};
	}
	const fields = inputsToFields(graph);
	return fields.length ? { fields } : { fields: [], emptyFieldsNotice: 'The saved workflow has no inputs with plain values to override.' };
}
