/** Realistic configs users paste (after ai-toolkit's examples), each compared with a real YAML parser. */
export const CORPUS: Record<string, string> = {
	aiToolkitExample: `---
job: extension
config:
  # this name will be the folder and filename name
  name: "my_first_flux_lora_v1"
  process:
    - type: 'sd_trainer'
      # root folder to save training sessions/samples/weights
      training_folder: "/app/ai-toolkit/output"
#      performance_log_every: 1000
      device: cuda:0
      network:
        type: "lora"
        linear: 16
        linear_alpha: 16
      save:
        dtype: float16 # precision to save
        save_every: 250 # save every this many steps
        push_to_hub: false #change this to True to push your trained model to Hugging Face.
      datasets:
        # datasets are a folder of images. captions need to be txt files with the same name as the image
        - folder_path: "/app/ai-toolkit/datasets/my-dataset"
          caption_ext: "txt"
          caption_dropout_rate: 0.05  # will drop out the caption 5% of time
          resolution: [ 512, 768, 1024 ]  # flux enjoys multiple resolutions
      train:
        batch_size: 1
        steps: 2000  # total number of steps to train 500 - 4000 is a good range
        lr: 0.0001
        ema_config:
          use_ema: true
          ema_decay: 0.99
      model:
        name_or_path: "black-forest-labs/FLUX.1-dev"
        is_flux: true
      sample:
        sampler: "flowmatch" # must match train.noise_scheduler
        prompts:
          # you can add [trigger] to the prompts here and it will be replaced with the trigger word
          - "woman with red hair, playing chess at the park, bomb going off in the background"
          - "a man holding a sign that says, 'this is a sign'"
        neg: ""  # not used on flux
meta:
  name: "[name]"
  version: '1.0'
`,
	plainValuesAndSameIndentLists: `config:
  name: plain_name
  process:
  - type: sd_trainer
    training_folder: /app/ai-toolkit/output
    datasets:
    - folder_path: /app/ai-toolkit/datasets/plain
      caption_ext: txt
    train:
      steps: 100
`,
	flowStyle: `config: {name: flow_job, process: [{training_folder: "/app/ai-toolkit/output", datasets: [{folder_path: '/app/ai-toolkit/datasets/flow ds'}], train: {steps: 10}}]}
`,
	multiLineFlowAndQuotes: `config:
  "name": 'it''s quoted'
  process:
    - training_folder: "/app/ai-toolkit/\\
        output"
      datasets: [
        { folder_path: "/app/ai-toolkit/datasets/x" },
        { folder_path: /app/ai-toolkit/datasets/y }
      ]
`,
	blockScalarsAndComments: `# leading comment
config:   # trailing comment
  name: >-
    folded
    name
  description: |
    line one

    line three
  process:
    -   training_folder: /app/ai-toolkit/output   # spaced after dash
        datasets:
          -
            folder_path: "/app/ai-toolkit/datasets/z"
...
ignored: after document end
`,
	anchorsAndTags: `config:
  name: !!str 123
  process:
    - &proc
      training_folder: /app/ai-toolkit/output
      datasets: []
`,
	wrongValues: `config:
  name: wrong
  process:
    - training_folder: output
      datasets:
        - folder_path: /data/images
`,
};
