export { searchDatasets } from '../../RunComfyDataset/methods/listSearch';
