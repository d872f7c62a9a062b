from recipelint.main import main

main()
