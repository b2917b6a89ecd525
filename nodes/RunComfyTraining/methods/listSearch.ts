export { searchDatasets } from '../../shared/pickers/datasets';
