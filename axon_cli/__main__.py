from axon_cli.cli import main

main()
