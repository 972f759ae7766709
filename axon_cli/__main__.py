from axon_cli.app.entry import main

main()
