export { searchDeployments } from '../../shared/pickers/deployments';
