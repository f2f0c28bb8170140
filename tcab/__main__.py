from tcab.cli import main

main()
