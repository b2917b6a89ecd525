/**
 * The pickers are the Dataset and Deployment nodes' own (one implementation each): the trigger offers the same
 * dataset and deployment lists as those nodes.
 */
export { searchDatasets } from '../../RunComfyDataset/methods/listSearch';
export { searchDeployments } from '../../RunComfyDeployment/methods/listSearch';
