/** The trigger offers the same dataset and deployment pickers as the Dataset and Deployment nodes. */
export { searchDatasets } from '../../shared/pickers/datasets';
export { searchDeployments } from '../../shared/pickers/deployments';
