from recipelint.cli import main

main()
