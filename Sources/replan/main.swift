import ReplanCLI
ReplanCommandLine.main()
