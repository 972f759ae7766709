from axon_cli.startup import main

main()
