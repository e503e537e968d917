import ReplanCLI

ReplanCommandLine.main()
